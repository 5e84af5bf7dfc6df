"""`fetch` against a local HTTP server on 127.0.0.1: full download, cut-off + resume (HTTP Range),
hash mismatch refused with nothing left in place, 404 with a clear error; then fetch() of a
manifest entry pins the hash and later refuses other bytes."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from checkpoints.fetch import FetchError, download_url, fetch
from checkpoints.lock import HashMismatchError, LockFile
from checkpoints.manifest import CheckpointEntry, Manifest

PAYLOAD = bytes(range(256)) * 1000  # 256,000 bytes


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))


@pytest.fixture
def server():
    """Serves PAYLOAD at /full.bin and /cut.bin (the first GET of /cut.bin stops half-way),
    honours Range requests, 404 elsewhere. Yields (base url, served files, request log)."""
    files = {"/full.bin": PAYLOAD, "/cut.bin": PAYLOAD}
    log: list[dict] = []
    state = {"cut": True}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

        def do_GET(self):
            log.append({"path": self.path, "range": self.headers.get("Range")})
            body = files.get(self.path)
            if body is None:
                self.send_error(404, "Not Found")
                return
            start = 0
            if self.headers.get("Range"):
                start = int(self.headers["Range"].removeprefix("bytes=").split("-")[0])
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body) - start))
            self.end_headers()
            if self.path == "/cut.bin" and state["cut"] and start == 0:
                state["cut"] = False
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body[start:])

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", files, log
    httpd.shutdown()
    httpd.server_close()


def test_full_download_checks_the_hash(server, tmp_path):
    base, _, _ = server
    dest = tmp_path / "out" / "w.bin"
    sha = download_url(f"{base}/full.bin", dest, sha256=hashlib.sha256(PAYLOAD).hexdigest())
    assert dest.read_bytes() == PAYLOAD
    assert sha == hashlib.sha256(PAYLOAD).hexdigest()
    assert not dest.with_name("w.bin.part").exists()


def test_cut_off_download_resumes_with_range(server, tmp_path):
    base, _, log = server
    dest = tmp_path / "w.bin"
    with pytest.raises(FetchError, match="resume"):
        download_url(f"{base}/cut.bin", dest)
    part = tmp_path / "w.bin.part"
    assert not dest.exists()
    assert part.stat().st_size == len(PAYLOAD) // 2
    sha = download_url(f"{base}/cut.bin", dest, sha256=hashlib.sha256(PAYLOAD).hexdigest())
    assert log[-1]["range"] == f"bytes={len(PAYLOAD) // 2}-"
    assert dest.read_bytes() == PAYLOAD and sha == hashlib.sha256(PAYLOAD).hexdigest()
    assert not part.exists()


def test_hash_mismatch_is_refused_and_nothing_is_left(server, tmp_path):
    base, _, _ = server
    dest = tmp_path / "w.bin"
    with pytest.raises(HashMismatchError, match="refused"):
        download_url(f"{base}/full.bin", dest, sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_404_is_a_clear_error(server, tmp_path):
    base, _, _ = server
    with pytest.raises(FetchError, match=r"missing\.bin: HTTP 404"):
        download_url(f"{base}/missing.bin", tmp_path / "w.bin")
    assert list(tmp_path.iterdir()) == []


def _manifest(base: str, sha256: str | None = None) -> Manifest:
    entry = CheckpointEntry(name="toy", specialist="test", kind="file", format="timm", files=("toy.bin",),
                            licence="test", urls=(f"{base}/missing.bin", f"{base}/full.bin"), sha256=sha256)
    return Manifest((entry,))


def test_fetch_tries_mirrors_in_order_pins_and_resolves(server, tmp_path):
    base, files, _ = server
    resolved = fetch("toy", manifest=_manifest(base))
    home = tmp_path / "home"
    assert resolved.path == home / "toy" / "toy.bin"
    assert resolved.path.read_bytes() == PAYLOAD
    assert resolved.ref.sha256 == hashlib.sha256(PAYLOAD).hexdigest()
    assert LockFile(home).pinned("toy") == resolved.ref.sha256
    assert not (home / ".staging" / "toy").exists()
    # the mirror now serves other bytes: a fresh fetch is refused against the pin, nothing in place
    resolved.path.unlink()
    files["/full.bin"] = PAYLOAD[::-1]
    with pytest.raises(FetchError, match="refused"):
        fetch("toy", manifest=_manifest(base))
    assert not (home / "toy" / "toy.bin").exists()


def test_fetch_with_manifest_hash_mismatch_leaves_nothing(server, tmp_path):
    base, _, _ = server
    with pytest.raises(FetchError, match="every source failed"):  # each mirror refused or absent
        fetch("toy", manifest=_manifest(base, sha256="1" * 64))
    home = tmp_path / "home"
    assert not (home / "toy").exists()
    assert LockFile(home).pinned("toy") is None


def test_a_resumed_download_reports_its_progress_in_bytes(server, tmp_path, monkeypatch):
    """The bar (drawn on a terminal only) starts at the bytes already there and ends at the total."""
    import checkpoints.fetch as fetch_module

    bars = []

    class Recording(fetch_module.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "disable": True})
            self.seen = {"total": kwargs["total"], "initial": kwargs["initial"], "added": 0}
            bars.append(self.seen)

        def update(self, n=1):
            self.seen["added"] += n

    base, _, _ = server
    dest = tmp_path / "w.bin"
    with pytest.raises(FetchError):
        download_url(f"{base}/cut.bin", dest)
    monkeypatch.setattr(fetch_module, "tqdm", Recording)
    download_url(f"{base}/cut.bin", dest)
    half = len(PAYLOAD) // 2
    assert bars == [{"total": len(PAYLOAD), "initial": half, "added": len(PAYLOAD) - half}]
