# The live-server fixtures of the integration tests (uvicorn, qcluster, the local pool).
from tests.integration.conftest import emulating_pool, judging_pool, stack  # noqa: F401
