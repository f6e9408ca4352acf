"""Submission languages that are not compiled into a shared library: one folder each (triton/).
Nothing is imported here: the sandboxed child loads only the folder of its own language."""
