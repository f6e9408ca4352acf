"""The sandbox: running untrusted programs (the compiler, the user's kernel) with nothing of the
host's in reach. Choosing one: agent.sandbox.modes. Nothing is imported here: the descriptor
handoff (agent.sandbox.fd_handoff) runs inside a container as `python -m`."""
