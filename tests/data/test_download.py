"""Downloads from a local HTTP server: success, reuse of the cache, and every failure mode."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from evalkit.data import DownloadError, download_movielens, load_movielens
from evalkit.data.download import cache_dir_path, parse_md5


def _release_zip(top: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as out:
        ratings = "userId,movieId,rating,timestamp\n1,1,4.0,10\n2,1,3.5,20\n"
        out.writestr(f"{top}/ratings.csv", ratings)
        out.writestr(f"{top}/movies.csv", "movieId,title,genres\n1,Toy Story (1995),Comedy\n")
        out.writestr(f"{top}/padding.bin", bytes(range(256)) * 64)  # a few chunks' worth
    return buffer.getvalue()


GOOD = _release_zip("ml-latest-small")
OTHER = _release_zip("ml-1m")


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()  # noqa: S324


class Server:
    """Serves a dict of path -> (status, body, declared length); counts requests."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes, int | None]] = {}
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                server.requests.append(self.path)
                status, body, length = server.routes.get(self.path, (404, b"not found", None))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/movielens/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def add(self, name: str, body: bytes, *, md5: str | None, length: int | None = None) -> None:
        self.routes[f"/movielens/{name}.zip"] = (200, body, length)
        if md5 is not None:
            self.routes[f"/movielens/{name}.zip.md5"] = (200, md5.encode(), None)


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    srv.thread.start()
    try:
        yield srv
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_download_verifies_and_caches(server: Server, tmp_path: Path) -> None:
    server.add("ml-latest-small", GOOD, md5=f"MD5 (ml-latest-small.zip) = {_md5(GOOD)}\n")
    path = download_movielens("ml-latest-small", cache_dir=tmp_path, base_url=server.url,
                              progress=False)  # fmt: skip
    assert path == tmp_path / "ml-latest-small.zip"
    assert path.read_bytes() == GOOD
    assert _files(tmp_path) == ["ml-latest-small.zip"]
    assert server.requests == [
        "/movielens/ml-latest-small.zip.md5",
        "/movielens/ml-latest-small.zip",
    ]
    # A cached archive is reused without any request.
    again = download_movielens("ml-latest-small", cache_dir=tmp_path, base_url=server.url,
                               progress=False)  # fmt: skip
    assert again == path and len(server.requests) == 2


def test_gnu_style_checksum_and_progress_bar(server: Server, tmp_path: Path, capsys) -> None:
    server.add("ml-1m", OTHER, md5=f"{_md5(OTHER).upper()}  ml-1m.zip\n")
    path = download_movielens("ml-1m", cache_dir=tmp_path, base_url=server.url.rstrip("/"))
    assert path.read_bytes() == OTHER
    assert "ml-1m.zip" in capsys.readouterr().err  # the bar is drawn on stderr


def test_load_movielens_downloads_when_missing(server: Server, tmp_path: Path, monkeypatch) -> None:
    server.add("ml-latest-small", GOOD, md5=f"MD5 (ml-latest-small.zip) = {_md5(GOOD)}")
    local = functools.partial(download_movielens, base_url=server.url, progress=False)
    monkeypatch.setattr("evalkit.data.movielens.download_movielens", local)
    data = load_movielens("ml-latest-small", cache_dir=tmp_path)
    assert _files(tmp_path) == ["ml-latest-small.zip"]
    assert data.name == "ml-latest-small"
    assert data.ratings["rating"].tolist() == [4.0, 3.5]
    assert data.items["title"].tolist() == ["Toy Story"]
    load_movielens("ml-latest-small", cache_dir=tmp_path)  # from the cache this time
    assert len(server.requests) == 2


def test_wrong_checksum_leaves_nothing(server: Server, tmp_path: Path) -> None:
    wrong = _md5(b"something else")
    server.add("ml-100k", GOOD, md5=f"MD5 (ml-100k.zip) = {wrong}")
    with pytest.raises(DownloadError) as err:
        download_movielens("ml-100k", cache_dir=tmp_path, base_url=server.url, progress=False)
    message = str(err.value)
    assert f"expected md5 {wrong}" in message and f"got {_md5(GOOD)}" in message
    assert _files(tmp_path) == []


def test_transfer_cut_short_leaves_nothing(server: Server, tmp_path: Path) -> None:
    server.add("ml-10m", GOOD, md5=_md5(GOOD), length=len(GOOD) + 5000)
    with pytest.raises(DownloadError) as err:
        download_movielens("ml-10m", cache_dir=tmp_path, base_url=server.url, progress=False)
    message = str(err.value)
    assert f"expected {len(GOOD) + 5000} bytes, received {len(GOOD)}" in message
    assert _files(tmp_path) == []


def test_missing_checksum_is_refused(server: Server, tmp_path: Path) -> None:
    server.add("ml-20m", GOOD, md5=None)
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_movielens("ml-20m", cache_dir=tmp_path, base_url=server.url, progress=False)
    assert _files(tmp_path) == []
    assert server.requests == ["/movielens/ml-20m.zip.md5"]


def test_missing_archive(server: Server, tmp_path: Path) -> None:
    server.routes["/movielens/ml-25m.zip.md5"] = (200, _md5(GOOD).encode(), None)
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_movielens("ml-25m", cache_dir=tmp_path, base_url=server.url, progress=False)
    assert _files(tmp_path) == []


def test_unreachable_server(tmp_path: Path) -> None:
    srv = Server()  # bound but never serving, then closed: the port refuses connections
    url = srv.url
    srv.httpd.server_close()
    with pytest.raises(DownloadError, match="could not fetch the checksum"):
        download_movielens("ml-32m", cache_dir=tmp_path, base_url=url, progress=False, timeout=5)
    assert _files(tmp_path) == []


def test_unknown_name_lists_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="valid values are 'ml-100k', 'ml-1m'"):
        download_movielens("ml-5m", cache_dir=tmp_path)


DIGEST = "c4d9eecfca2ab87c1945afe126590906"


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        ("MD5 (ml-1m.zip) = c4d9eecfca2ab87c1945afe126590906\n", DIGEST),
        ("C4D9EECFCA2AB87C1945AFE126590906  ml-1m.zip", DIGEST),
        (f"{DIGEST} *ml-1m.zip\n", DIGEST),
        (DIGEST, DIGEST),
    ],
)
def test_parse_md5_forms(text: str, digest: str) -> None:
    assert parse_md5(text) == digest


def test_parse_md5_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="unrecognised"):
        parse_md5("<html>Not Found</html>")


def test_cache_dir_resolution(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EVALKIT_DATA", str(tmp_path / "env"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir_path(tmp_path / "arg") == tmp_path / "arg"
    assert cache_dir_path() == tmp_path / "env"
    monkeypatch.delenv("EVALKIT_DATA")
    assert cache_dir_path() == tmp_path / "xdg" / "evalkit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir_path() == tmp_path / "home" / ".cache" / "evalkit"


def test_downloaded_archive_loads_like_its_contents(server: Server, tmp_path: Path) -> None:
    server.add("ml-latest", GOOD, md5=_md5(GOOD))
    path = download_movielens("ml-latest", cache_dir=tmp_path, base_url=server.url, progress=False)
    data = load_movielens(path)
    expected = pd.DataFrame(
        {"user_id": [1, 2], "item_id": [1, 1], "rating": [4.0, 3.5], "timestamp": [10, 20]}
    )
    pd.testing.assert_frame_equal(data.ratings, expected)
