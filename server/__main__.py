"""``python -m server``: run the Yggdrasil gRPC server (see server.main)."""

from __future__ import annotations

import os
import sys

from server.main import main

if __name__ == "__main__":
    code = main()
    # Once main returns the server has stopped (``server_stopped`` is logged) and every
    # acknowledged change is in the store: nothing is left to save. Interpreter teardown would
    # still join every thread, and a thread can be stuck for minutes, e.g. the database pool
    # resolving the name of a PostgreSQL that compose or Kubernetes stopped at the same time
    # (a node then overran its stop grace period and was killed, exit 137). So the process
    # ends here, with its output flushed, instead of waiting for them.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
