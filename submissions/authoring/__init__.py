"""Problem authoring: `manage.py problem new` writes a working skeleton bundle (skeleton.py),
`manage.py problem check` judges a bundle's own solutions through the agent's real pipeline on
every device this machine has (check.py). Neither imports Django: the command is a thin shell."""
