"""What uploads cost a server, and whether it gives the memory back when the sessions that held them are gone.

    python -m bench.session_memory [--sessions 3] [--megabytes 7] [--ttl 120] [--gradio]

Streamlit (the default): `streamlit run app.py` on a free loopback port with `server.disconnectedSessionTTL` set to
`--ttl` seconds; `--sessions` raw websocket sessions (bench/wsclient.py) each upload `--megabytes` MB files as the
browser's uploader does until the server refuses one (ui.door's budget per session, limits.MAX_SESSION_UPLOAD_BYTES),
then close. The server's resident memory is printed before, while the uploads are held, right after the sessions
closed, and after their timeout plus the door's reaper period (ui.door.REAP_EVERY_S): Streamlit kept a closed
session's uploads for good (+393 MB 6 minutes after a session closed with a timeout of 120 s).

--gradio: `python gradio_app.py` with its own GRADIO_TEMP_DIR; `--sessions` x 8 uploads to /gradio_api/upload, half of
them read by a call (/image_attention) and half never used; the upload folder's size is printed before, after the
uploads, after the calls (a call deletes what it read) and after the server stopped (Gradio deletes the rest at
shutdown): 30 uploads left 201 MB in Gradio's temp folder, never cleaned.

Figures, not a pass/fail test: tests/e2e/test_door.py runs the Streamlit half with a short timeout and holds it to
ui.door's promise (RSS back within 50 MB of where it was).
"""
from __future__ import annotations

import argparse
import asyncio
import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {seconds:.0f} s")


@dataclass
class UploadRun:
    idle: float            # MB resident before any session
    held: float            # while every session holds its uploads
    closed: float          # right after the sessions closed
    after: float           # after the timeout and one reaper period
    accepted: int          # uploads the server took
    refused: int           # uploads refused (one per session: the one past the budget)
    sentences: list[str]   # what the pages said about the refusals
    waited: float          # seconds from the close to `after`


async def uploads_and_close(port: int, pid: int, sessions: int, megabytes: float, wait_s: float,
                            most: int = 100) -> UploadRun:
    """Each session uploads until refused; all close; the server's memory is read along the way."""
    from bench.wsclient import Session

    async with Session("127.0.0.1", port, timeout=300) as warm:   # the page's own modules and caches, loaded once
        await warm.open("beyond")
    await asyncio.sleep(2)
    idle = rss_mb(pid)
    data = os.urandom(int(megabytes * 1e6))      # incompressible, as a photo is
    accepted = refused = 0
    sentences: list[str] = []
    opened = []
    for _ in range(sessions):
        session = Session("127.0.0.1", port, timeout=300)
        await session.__aenter__()
        opened.append(session)
        await session.open("beyond")
        for i in range(most):
            status, _ = await asyncio.to_thread(session.upload, data, f"upload-{i}.png")
            if status == 204:
                accepted += 1
                continue
            refused += 1
            break
        run = await session.rerun()
        sentences += [w for w in run.warnings if "upload" in w]
    held = rss_mb(pid)
    for session in opened:
        await session.__aexit__(None, None, None)
    await asyncio.sleep(1)
    closed = rss_mb(pid)
    start = time.time()
    await asyncio.sleep(wait_s)
    return UploadRun(idle, held, closed, rss_mb(pid), accepted, refused, sentences, time.time() - start)


def streamlit_server(port: int, ttl: float, checkout: Path = ROOT) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0")
    return subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--server.fileWatcherType", "none", "--server.disconnectedSessionTTL", str(int(ttl))],
                            cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_streamlit(sessions: int, megabytes: float, ttl: float, most: int = 100, checkout: Path = ROOT) -> UploadRun:
    from ui.door import REAP_EVERY_S

    port = free_port()
    server = streamlit_server(port, ttl, checkout)
    try:
        wait_for(f"http://127.0.0.1:{port}/_stcore/health")
        return asyncio.run(uploads_and_close(port, server.pid, sessions, megabytes, ttl + REAP_EVERY_S + 5, most))
    finally:
        server.terminate()
        server.wait(30)


def folder_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def run_gradio(sessions: int, megabytes: float) -> dict[str, float]:
    """The upload folder's size through uploads, calls and the server's shutdown (SIGTERM, as a container stops)."""
    import httpx
    import numpy as np
    from PIL import Image

    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="gradio-uploads-"))
    env = dict(os.environ, GRADIO_TEMP_DIR=str(folder), GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port))
    server = subprocess.Popen([sys.executable, "gradio_app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    figures = {}
    try:
        wait_for(f"http://127.0.0.1:{port}/", 240)
        base = f"http://127.0.0.1:{port}/gradio_api"
        side = int((megabytes * 1e6 / 3) ** 0.5)
        buffer = io.BytesIO()
        Image.fromarray(np.random.default_rng(0).integers(0, 256, (side, side, 3), dtype=np.uint8)).save(buffer, "PNG")
        picture = buffer.getvalue()
        figures["before"] = folder_mb(folder)
        paths = []
        for i in range(sessions * 8):
            reply = httpx.post(f"{base}/upload", files={"files": (f"p{i}.png", picture, "image/png")}, timeout=120)
            paths.append(reply.json()[0])
        figures["uploaded"] = folder_mb(folder)
        for path in paths[: len(paths) // 2]:
            event = httpx.post(f"{base}/call/image_attention", timeout=120, json={"data": [
                "astronaut", {"path": path, "meta": {"_type": "gradio.FileData"}}, 224, 16, "crop", 64, 0, 1, 1,
                "spotlight"]}).json()["event_id"]
            httpx.get(f"{base}/call/image_attention/{event}", timeout=300)
        figures["after the calls"] = folder_mb(folder)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    figures["after shutdown"] = folder_mb(folder)
    figures["uploads"] = len(paths)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--megabytes", type=float, default=7.0)
    parser.add_argument("--ttl", type=float, default=120.0, help="server.disconnectedSessionTTL, seconds")
    parser.add_argument("--uploads", type=int, default=100, help="at most this many uploads per session")
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="serve this checkout of the app instead (another commit's worktree, to compare)")
    parser.add_argument("--gradio", action="store_true")
    args = parser.parse_args()
    if args.gradio:
        figures = run_gradio(args.sessions, args.megabytes)
        print(f"Gradio, {figures.pop('uploads')} uploads of {args.megabytes:g} MB (half read by a call): upload "
              "folder " + ", ".join(f"{name} {mb:.1f} MB" for name, mb in figures.items()))
        return
    run = run_streamlit(args.sessions, args.megabytes, args.ttl, args.uploads, args.checkout)
    print(f"Streamlit, {args.sessions} sessions uploading {args.megabytes:g} MB files until refused "
          f"(accepted {run.accepted}, refused {run.refused}), disconnectedSessionTTL {args.ttl:g} s:")
    print(f"  RSS before {run.idle:.0f} MB, holding the uploads {run.held:.0f} MB (+{run.held - run.idle:.0f}), "
          f"just closed {run.closed:.0f} MB, {run.waited:.0f} s after closing {run.after:.0f} MB "
          f"({run.after - run.idle:+.0f} against before)")
    for sentence in sorted(set(run.sentences)):
        print(f"  the page said: {sentence}")


if __name__ == "__main__":
    main()
