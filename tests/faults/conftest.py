"""The integration tests' process fixtures, shared with the fault test."""

from tests.integration.conftest import judging_pool, stack  # noqa: F401
