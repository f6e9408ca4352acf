"""Problems: bundles (problem.yaml and its references), their schema, element types, formulas and
speed of light."""
