"""The harness: the sandboxed child that runs the user's kernel and the trusted parent's end of it
(the control channel, shared memory, one call, how a child ended). Nothing is imported here: the
child starts once per phase and imports only agent.harness.child, agent.harness.wire and its device."""
