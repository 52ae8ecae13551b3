"""TCPStore failures in one process, with a timeout of a few seconds.

store.py wait      a key no one sets
store.py connect   a client to a port no server listens on
store.py clients   a server waiting for a second client that never comes
store.py inuse     a server on a port another socket holds
"""

import os
import socket
import sys
from datetime import timedelta

import torch.distributed as dist

import _lab

how = sys.argv[1]
port = int(os.environ["LAB_PORT"])
timeout = timedelta(seconds=_lab.TIMEOUT)
if how == "wait":
    store = dist.TCPStore("127.0.0.1", port, 1, True, timeout=timeout)
    store.set("ready/0", "1")
    store.wait(["ready/1"])
elif how == "connect":
    dist.TCPStore("127.0.0.1", port, 2, False, timeout=timeout)
elif how == "clients":
    dist.TCPStore("127.0.0.1", port, 2, True, timeout=timeout, wait_for_workers=True)
elif how == "inuse":
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("0.0.0.0", port))
    held.listen()
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1, timeout=timeout
    )
