"""``python -m server``: run the Yggdrasil gRPC server (see server.main)."""

from __future__ import annotations

import sys

from server.main import main

if __name__ == "__main__":
    sys.exit(main())
