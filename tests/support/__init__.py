"""Test helpers and stand-ins (not tests): the scripted agent, the ranked-pass helpers, the session
servers' stopper, the controllable clock."""
