"""Warm notebook kernels: each kernel forked from a process that has already imported what
the notebooks import, instead of a new Python that imports it all again.

A kernel started as usual and the notebooks' import cell cost about 1.4 s of CPU before the
notebook's work begins (measured on two cores: Python, ipykernel and IPython, then pandas,
NumPy, matplotlib, numba and evalkit); a kernel forked as below, 0.13 s. A report runs nine
kernels side by side on few cores. Here one process, the *kernel server*, imports all of that
once and then forks a kernel for each request: the child is the kernel, with the modules
already in memory (shared with the server, copy on write).

The server is started with the environment its kernels will have (``start_server``) and
forks a kernel only when what the imports read of the environment is the same for the
request (:data:`IMPORT_VARIABLES`: thread-pool sizes, the metrics to load, matplotlib's
backend, Python's paths, ...) and the kernel is the standard one (``python -m
ipykernel_launcher -f <connection file>`` with the server's Python); otherwise the kernel is
started as usual, as it is when no server runs. The child takes the request's environment,
working folder and standard streams, becomes the leader of its own session (so that an
interrupt or a kill reaches it and what it starts, as for a kernel started as usual), and
runs ``ipykernel_launcher`` as ``python -m`` would. The server reaps its children and tells
each requester its kernel's exit status; it exits when the process that started it does.

:class:`WarmProvisioner` is the jupyter_client kernel provisioner that asks the server named
by ``$EVALKIT_KERNEL_SERVER`` for each kernel it launches (registered as
``evalkit-warm-kernels``; ``JUPYTER_DEFAULT_PROVISIONER_NAME=evalkit-warm-kernels`` makes it
every kernel's). ``evalkit report`` starts a server for its run; the test suite starts one
for the whole session.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client.provisioning import LocalProvisioner

#: The environment variable naming the kernel server's socket.
SERVER = "EVALKIT_KERNEL_SERVER"

#: The provisioner's name among jupyter_client's kernel provisioners (entry point).
PROVISIONER = "evalkit-warm-kernels"

#: What the server imports before it forks kernels: what the notebooks import.
PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "IPython", "pandas", "numpy",
           "matplotlib.pyplot", "evalkit", "evalkit.plots", "evalkit.segments",
           "evalkit.report")

#: Environment variables read as modules are imported (or as Python starts): a kernel is
#: forked only when its values of these (by name or prefix) are the server's.
IMPORT_VARIABLES = ("OMP_", "OPENBLAS_", "MKL_", "NUMBA_", "MPL", "PYTHON", "IPYTHON", "LD_",
                    "LANG", "LC_", "HOME", "USER", "XDG_", "EVALKIT_METRICS", "VIRTUAL_ENV",
                    "JPY_INTERRUPT_EVENT")

#: The backend ipykernel sets when none is (``ipykernel.kernelapp``), set before matplotlib
#: is imported, as it would be in a kernel started as usual.
INLINE = "module://matplotlib_inline.backend_inline"

_HEADER = struct.Struct("!I")

#: Seconds a request waits for the server's answer (its imports, on a busy machine) before
#: the kernel is started as usual instead.
_WAIT = 120.0


def _import_environment(env: dict[str, str]) -> dict[str, str]:
    environment = dict(env)
    environment.setdefault("MPLBACKEND", INLINE)
    return {name: value for name, value in environment.items()
            if name.startswith(IMPORT_VARIABLES)}


def _standard_kernel(cmd: list[str]) -> bool:
    return (len(cmd) >= 5 and cmd[1:3] == ["-m", "ipykernel_launcher"]
            and os.path.abspath(cmd[0]) == os.path.abspath(sys.executable))


# -- the server ---------------------------------------------------------------------------------

#: The server's command. The starter's working folder, which ``python -c`` puts first on the
#: path, is taken off before anything is imported (it is not on a kernel's path; ``-P``
#: would take it off too, but the kernels inherit the flag, and IPython then leaves their
#: own folder off as well). The socket is bound and listening before anything is imported,
#: so that requests wait in its backlog while the imports run (it takes its name only once
#: it listens: a request that finds it is not refused); matplotlib's backend is the one
#: ipykernel sets before anything can import matplotlib. pandas is imported first, as a
#: notebook cell imports it: with ``get_ipython`` among the builtins, answering a shell that
#: has a kernel; pandas chooses the defaults of its display options as it is imported, by
#: whether it runs in a Jupyter kernel (``display.max_columns``: 20 there, fitted to the
#: terminal elsewhere).
_BOOT = f"""\
import sys
del sys.path[0]
import builtins, os, socket
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1] + ".binding")
listener.listen(64)
os.rename(sys.argv[1] + ".binding", sys.argv[1])  # there once it listens
os.environ.setdefault("MPLBACKEND", {INLINE!r})
class Shell:
    kernel = None
builtins.get_ipython = Shell
try:
    import pandas
finally:
    del builtins.get_ipython
from evalkit.report._warm import serve
serve(listener)
"""


def serve(listener: socket.socket) -> None:
    """Fork a kernel for each request on ``listener`` (a listening Unix socket), until the
    process that started this one ends."""
    parent = os.getppid()
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # as the kernel would show them: on its own import
        for name in PRELOAD:
            importlib.import_module(name)
    ours = _import_environment(dict(os.environ))
    # the inline backend hooks itself into the kernel's shell as it is imported: imported
    # here, before there is a shell, the kernels would show no figures
    broken = "matplotlib_inline.backend_inline" in sys.modules
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the process that started it
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    children: dict[int, socket.socket] = {}
    while os.getppid() == parent and not stopping:
        ready, _, _ = select.select([listener, wake_read], [], [], 1.0)
        if wake_read in ready:
            os.read(wake_read, 512)
        _reap(children)
        if listener in ready:
            conn, _ = listener.accept()
            conn.settimeout(10)  # a requester sends at once
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError):
                conn.close()
                continue
            conn.settimeout(None)
            refused = ("matplotlib's inline backend was imported before the kernel" if broken
                       else _refusal(request, ours))
            if refused:
                with contextlib.suppress(OSError):  # the requester may have given up
                    _send(conn, {"refused": refused})
                conn.close()
                for fd in fds:
                    os.close(fd)
                continue
            pid = os.fork()
            if pid == 0:
                _become_kernel(request, fds, [listener, conn, *children.values()],
                               (wake_read, wake_write))
            for fd in fds:
                os.close(fd)
            children[pid] = conn
            try:
                _send(conn, {"pid": pid})
            except OSError:  # the requester gave up waiting and starts its kernel as usual
                _kill(pid)
    # stopped, or the starter is gone: so are the kernels, and their requesters are told
    for pid in children:
        _kill(pid)
    _reap(children, block=True)


def _refusal(request: dict, ours: dict[str, str]) -> str:
    if not _standard_kernel(request["cmd"]):
        return "not the standard kernel command"
    theirs = _import_environment(request["env"])
    if theirs != ours:
        names = sorted(name for name in set(theirs) | set(ours)
                       if theirs.get(name) != ours.get(name))
        return f"the environment differs in {', '.join(names)}"
    return ""


def _reap(children: dict[int, socket.socket], *, block: bool = False) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            try:
                _send(conn, {"exit": os.waitstatus_to_exitcode(status)})
            except OSError:
                pass
            conn.close()


def _become_kernel(request: dict, fds: list[int], sockets: list, wake: tuple[int, int]) -> None:
    """In the forked child: take the request's streams, folder and environment, and run
    ipykernel_launcher as ``python -m`` would; never return."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL if sig == signal.SIGCHLD
                          else signal.default_int_handler)
        for sock in sockets:
            sock.close()
        for fd in wake:
            os.close(fd)
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        import runpy

        # ipykernel reads its parent's pid from the environment as it is imported (without
        # it, the kernel prints a terminal's Ctrl-C notice): given here to the application,
        # which ipykernel_launcher then takes as it is
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.instance(parent_handle=int(os.environ.get("JPY_PARENT_PID") or 0))
        sys.argv = ["ipykernel_launcher", *request["cmd"][3:]]
        runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - the kernel's crash, as Python would print it
        import traceback

        traceback.print_exc()
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _kill(pid: int) -> None:
    """Kill the kernel ``pid`` and what it started (its session's group; a kernel forked a
    moment ago may not lead its own session yet)."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, signal.SIGKILL)


# -- the protocol ------------------------------------------------------------------------------

def _send(conn: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    header = _HEADER.pack(len(data))
    if fds:
        socket.send_fds(conn, [header], fds)
        conn.sendall(data)
    else:
        conn.sendall(header + data)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, _HEADER.size, 3)
    if len(header) < _HEADER.size:
        header += _read(conn, _HEADER.size - len(header))
    return json.loads(_read(conn, _HEADER.unpack(header)[0])), list(fds)


def _read(conn: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(left)
        if not chunk:
            raise ValueError("the connection closed before the message ended")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# -- the client --------------------------------------------------------------------------------

class ForkedKernel:
    """The ``subprocess.Popen`` face of a kernel the server forked: its exit status comes
    from the server (the kernel is the server's child, not ours)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int, conn: socket.socket) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._conn = conn

    def poll(self) -> int | None:
        if self.returncode is None:
            self._check(block=False)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            ready, _, _ = select.select([self._conn], [], [], min(left or 0.5, 0.5))
            if ready:
                self._check(block=True)
        return self.returncode

    def _check(self, *, block: bool) -> None:
        if self._conn is None:
            return
        if not block:
            ready, _, _ = select.select([self._conn], [], [], 0)
            if not ready:
                return
        try:
            message, _ = _receive(self._conn)
            self.returncode = int(message["exit"])
        except (OSError, ValueError, KeyError):
            # the server is gone: the kernel's status is whether it still runs
            try:
                os.kill(self.pid, 0)
                return
            except OSError:
                self.returncode = -signal.SIGKILL
        self._conn.close()
        self._conn = None

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def fork_kernel(cmd: list[str], *, env: dict[str, str] | None = None,
                cwd: str | os.PathLike | None = None, stdout=None, stderr=None,
                path: str | None = None) -> ForkedKernel | None:
    """A kernel for ``cmd`` forked by the server at ``path`` (default: ``$EVALKIT_KERNEL_SERVER``),
    or None when there is no server, it is gone, or it refuses (then start the kernel as
    usual)."""
    path = os.environ.get(SERVER) if path is None else path
    if not path or not _standard_kernel(cmd):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(_WAIT)
    try:
        conn.connect(path)
        with open(os.devnull, "rb") as nothing:
            fds = [nothing.fileno(), _fd(stdout, 1), _fd(stderr, 2)]
            _send(conn, {"cmd": list(map(str, cmd)), "env": dict(env or os.environ),
                         "cwd": os.fspath(cwd or os.getcwd())}, fds)
        reply, _ = _receive(conn)
    except (OSError, ValueError):
        conn.close()
        return None
    if "pid" not in reply:
        conn.close()
        return None
    conn.settimeout(None)
    return ForkedKernel(int(reply["pid"]), conn)


def _fd(stream, default: int) -> int:
    if stream is None:
        return default
    return stream if isinstance(stream, int) else stream.fileno()


class WarmProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, launching through the kernel server named by the
    kernel's environment (``$EVALKIT_KERNEL_SERVER``) when one runs and accepts the kernel,
    and as usual otherwise."""

    async def launch_kernel(self, cmd: list[str], **kwargs: object):
        env = dict(kwargs.get("env") or os.environ)
        if not kwargs.get("independent"):  # as jupyter_client's launcher sets it
            env["JPY_PARENT_PID"] = str(os.getpid())
        process = fork_kernel([os.path.expanduser(part) for part in cmd], env=env,
                              cwd=kwargs.get("cwd"), stdout=kwargs.get("stdout"),
                              stderr=kwargs.get("stderr"), path=env.get(SERVER))
        if process is None:
            return await super().launch_kernel(cmd, **kwargs)
        self.process = process
        self.pid = self.pgid = process.pid  # the kernel leads its own session
        self.cwd = kwargs.get("cwd", Path.cwd())
        return self.connection_info


class KernelServer:
    """A running kernel server: its socket's path (``path``) and process; ``stop()`` ends
    it, and the kernels it forked with it."""

    def __init__(self, path: str, process: subprocess.Popen, folder: str) -> None:
        self.path, self.process, self._folder = path, process, folder

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # it kills its kernels and tells their requesters
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        try:
            os.unlink(self.path)
            os.rmdir(self._folder)
        except OSError:
            pass

    def __enter__(self) -> KernelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_server(env: dict[str, str] | None = None) -> KernelServer:
    """Start a kernel server for kernels with the environment ``env`` (default: this
    process's); it imports in the background while the caller goes on."""
    folder = tempfile.mkdtemp(prefix="evalkit-kernels-")
    path = os.path.join(folder, "server")
    process = subprocess.Popen([sys.executable, "-c", _BOOT, path], env=dict(env or os.environ),
                               stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(path) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)  # listening before the imports: a few hundredths of a second
    return KernelServer(path, process, folder)
