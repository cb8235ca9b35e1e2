"""Kernels forked from a kernel server (evalkit/report/_warm.py): they run as kernels
started as usual do, in the folder and environment asked for, answer interrupts and kills,
and are started as usual whenever the server cannot give the kernel asked for."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from evalkit.report import _warm

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    with _warm.start_server() as running:
        yield running


def _manager(server_path: str, env: dict[str, str] | None = None):
    """A kernel manager whose kernels launch through ``server_path`` (as the report runner's
    do), with ``env`` added to their environment."""
    from jupyter_client.manager import KernelManager

    class Manager(KernelManager):
        async def _async_pre_start_kernel(self, **kw):
            self.kernel_id = self.kernel_id or "warm-test"
            self.provisioner = _warm.WarmProvisioner(
                kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
            return await super()._async_pre_start_kernel(**kw)

    km = Manager(kernel_name="python3")
    km.start_kernel(env={**os.environ, _warm.SERVER: server_path, **(env or {})},
                    cwd=os.getcwd())
    return km


def _run(km, code: str, timeout: float = 30) -> dict:
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=timeout)
        reply = client.execute_interactive(code, timeout=timeout, store_history=False)
        return reply["content"]
    finally:
        client.stop_channels()


def _value(km, expression: str):
    """``expression``'s value in ``km``'s kernel, evaluated in a cell (as a notebook's code
    is, with IPython's builtins), through JSON."""
    import ast
    import json

    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=30)
        reply = client.execute_interactive(
            f"_warm_test_value = __import__('json').dumps({expression})",
            user_expressions={"v": "_warm_test_value"}, timeout=30, store_history=False)
        text = reply["content"]["user_expressions"]["v"]["data"]["text/plain"]
        return json.loads(ast.literal_eval(text))  # the repr of the JSON text
    finally:
        client.stop_channels()


def test_a_forked_kernel_is_the_kernel_python_would_start(server, tmp_path,
                                                           monkeypatch) -> None:
    """In the folder and environment asked for, a child of the server, and otherwise as a
    kernel started as usual: the same module path, arguments (but the connection file),
    environment, main module, matplotlib backend, flags, pandas's display options (which
    pandas chooses as it is imported, by whether it is imported in a kernel) and session (it
    leads its own, so that an interrupt reaches what it starts)."""
    monkeypatch.chdir(tmp_path)
    facts = ("[__import__('os').getcwd(), __import__('os').environ.get('EVALKIT_WARM_TEST'), "
             "__import__('sys').path, __import__('sys').argv[:-1], "
             "sorted(__import__('os').environ), __import__('sys').modules['__main__'].__name__, "
             "__import__('matplotlib').get_backend(), list(__import__('sys').flags), "
             "type(get_ipython()).__name__, "
             "__import__('ipykernel.kernelapp').kernelapp.IPKernelApp.instance().parent_handle, "
             "{o: str(__import__('pandas').get_option(o)) for o in ('display.max_columns', "
             "'display.width', 'display.max_rows', 'display.notebook_repr_html')}, "
             "__import__('os').getsid(0) == __import__('os').getpid(), "
             "__import__('os').getppid()]")
    given = {"EVALKIT_WARM_TEST": "given"}
    warm, usual = _manager(server.path, given), _manager("", given)
    try:
        assert isinstance(warm.provisioner.process, _warm.ForkedKernel)
        assert not isinstance(usual.provisioner.process, _warm.ForkedKernel)
        *ours, parent = _value(warm, facts)
        *theirs, _ = _value(usual, facts)
        assert ours[:2] == [str(tmp_path), "given"]
        assert set(ours[4]) ^ set(theirs[4]) == set()
        assert ours == theirs
        assert parent == server.process.pid
        assert _value(warm, "'evalkit.report' in __import__('sys').modules")  # preloaded
        assert warm.is_alive()
    finally:
        warm.shutdown_kernel()
        usual.shutdown_kernel(now=True)
    assert warm.provisioner is None or not warm.is_alive()


def test_an_interrupt_reaches_the_forked_kernel_and_a_kill_ends_it(server) -> None:
    import threading
    import time

    km = _manager(server.path)
    process = km.provisioner.process
    try:
        assert isinstance(process, _warm.ForkedKernel) and process.poll() is None
        timer = threading.Timer(1.5, km.interrupt_kernel)
        timer.start()
        began = time.monotonic()
        content = _run(km, "import time\nwhile True: time.sleep(0.05)")
        timer.join()
        assert content["status"] == "error" and content["ename"] == "KeyboardInterrupt"
        assert time.monotonic() - began < 20
        assert _run(km, "x = 1")["status"] == "ok"  # the kernel goes on after an interrupt
    finally:
        km.shutdown_kernel(now=True)
    assert process.poll() is not None  # the server told its exit
    with pytest.raises(OSError):
        os.kill(process.pid, 0)  # and reaped it


def test_the_kernel_tells_how_it_ended(server) -> None:
    """The exit status, which only the server (the kernel's parent) can read, reaches the
    kernel's manager: a status of the kernel's own, and a signal's."""
    km = _manager(server.path)
    process = km.provisioner.process
    client = km.client()
    client.start_channels()
    client.wait_for_ready(timeout=30)
    client.execute("import os; os._exit(3)")
    assert process.wait(timeout=30) == 3
    client.stop_channels()
    km.cleanup_resources()
    km = _manager(server.path)
    process = km.provisioner.process
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL
    km.cleanup_resources()


def test_a_kernel_the_server_cannot_give_is_started_as_usual(server) -> None:
    # a thread-pool size the server's imports did not read: refused, started as usual
    variable = "OPENBLAS_NUM_THREADS"
    other = str(int(os.environ.get(variable, "1")) + 1)
    cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "unused.json"]
    assert _warm.fork_kernel(cmd, env={**os.environ, variable: other},
                             path=server.path) is None
    assert _warm.fork_kernel(["python", "-m", "ipykernel_launcher", "-f", "x.json"],
                             path=server.path) is None  # another Python
    assert _warm.fork_kernel(cmd, path="") is None  # no server
    km = _manager(server.path, {variable: other})
    try:
        assert not isinstance(km.provisioner.process, _warm.ForkedKernel)
        assert _value(km, f"__import__('os').environ['{variable}']") == other
    finally:
        km.shutdown_kernel(now=True)


def test_a_stopped_server_takes_its_kernels_with_it() -> None:
    server = _warm.start_server()
    km = _manager(server.path)
    process = km.provisioner.process
    assert isinstance(process, _warm.ForkedKernel)
    server.stop()
    assert process.wait(timeout=30) is not None
    assert not os.path.exists(server.path)
    km.cleanup_resources()


#: Run in a new process, whose only child is then a kernel server: the resident bytes below
#: it (as the report's memory counts them), the kernel's own and the server's own.
_MEASURE = """
import json, os, sys, time
from pathlib import Path
from evalkit.report import _warm
from evalkit.report._memory import tree_rss
def own(pid):
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(stat[21]) * os.sysconf("SC_PAGE_SIZE")
connection = sys.argv[1]
with _warm.start_server() as server:
    kernel = _warm.fork_kernel([sys.executable, "-m", "ipykernel_launcher", "-f", connection],
                               path=server.path)
    while not os.path.exists(connection):  # written by the kernel as it starts
        time.sleep(0.05)
    time.sleep(0.5)
    print(json.dumps([tree_rss(os.getpid()) - own(os.getpid()), own(kernel.pid),
                      own(server.process.pid), tree_rss(server.process.pid)]))
    kernel.kill()
"""


def test_a_runs_memory_counts_the_servers_pages_once(tmp_path) -> None:
    """The report's memory sums the process tree's resident memory; the kernel server's own
    is left out, since its kernels share those pages and hold them resident themselves."""
    import json
    import subprocess

    done = subprocess.run([sys.executable, "-c", _MEASURE, str(tmp_path / "kernel.json")],
                          capture_output=True, text=True, timeout=120, check=True)
    below, kernel, held, asked = json.loads(done.stdout.strip().splitlines()[-1])
    assert held > 50e6  # the server holds the imports
    assert asked >= held  # the server itself, asked for, counts
    # below the measuring process: the server (left out) and, below it, the kernel
    assert kernel <= below < kernel + held / 2


def test_a_requester_that_gives_up_leaves_no_kernel_and_the_server_serving(tmp_path) -> None:
    """A request whose requester has gone when the answer comes (it waited too long and
    started its kernel as usual): the kernel forked for it is killed at once, and the server
    goes on serving. The request is sent while a new server still imports, and abandoned."""
    import socket
    import time

    def forked(server) -> set[int]:
        found = set()
        for entry in os.listdir("/proc"):
            try:
                stat = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except (OSError, ValueError):
                continue
            if stat[1] == str(server.process.pid) and stat[0] != "Z":
                found.add(int(entry))
        return found

    with _warm.start_server() as server:
        cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", str(tmp_path / "gone.json")]
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(server.path)
        with open(os.devnull, "rb") as nothing:
            _warm._send(conn, {"cmd": cmd, "env": dict(os.environ), "cwd": os.getcwd()},
                        [nothing.fileno(), 1, 2])
        conn.close()  # before the server has imported, so before it answers
        km = _manager(server.path)  # answered after the abandoned request
        try:
            assert isinstance(km.provisioner.process, _warm.ForkedKernel)
            time.sleep(0.5)
            assert forked(server) == {km.provisioner.process.pid}
            assert server.process.poll() is None
        finally:
            km.shutdown_kernel(now=True)


def test_the_starters_folder_is_not_on_the_servers_import_path(tmp_path, monkeypatch) -> None:
    """A module in the folder ``evalkit report`` is run from (here one named like a module the
    server imports) is not what the server imports: as a kernel started as usual does not
    see that folder, the server does not either, and the kernels still fork."""
    (tmp_path / "IPython.py").write_text("raise ImportError('the starter folder was imported')\n")
    monkeypatch.chdir(tmp_path)
    with _warm.start_server() as server:
        km = _manager(server.path)
        try:
            assert isinstance(km.provisioner.process, _warm.ForkedKernel)
        finally:
            km.shutdown_kernel(now=True)
