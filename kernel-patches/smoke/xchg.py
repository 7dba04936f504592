#!/usr/bin/env python3
"""renameat2(a, b, RENAME_EXCHANGE); exit 0 on success, 1 with the error."""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(316, -100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)
if r < 0:
    print(os.strerror(ctypes.get_errno())); sys.exit(1)
