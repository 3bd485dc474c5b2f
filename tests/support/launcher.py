"""What the real stores' launchers share (rgw.py, swift.py): free loopback
ports, the path of a start script of this checkout, running it with its
stdout in a file (the servers it starts must not hold a pipe of ours open)
and reading the KEY=VALUE lines it prints, and the end of a log for an error.
"""
import os
import socket
import subprocess


def free_ports(n):
    """n distinct free loopback ports (all held open until each is known)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def script(folder, name):
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        raise SystemExit(f"servers: {path} is missing from this checkout")
    return path


def tail(path, lines=25):
    try:
        with open(path, errors="replace") as fh:
            return "".join(fh.readlines()[-lines:])
    except OSError:
        return "(no log)"


def run_start_script(path, args, env, out_path, err_path, timeout=900):
    """Runs `bash path args...`; returns (its exit status or "timeout", the
    KEY=VALUE lines it printed as a dict)."""
    with open(out_path, "wb") as out, open(err_path, "ab") as err:
        try:
            rc = subprocess.run(["bash", path] + list(args), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=env, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    values = {}
    with open(out_path, errors="replace") as fh:
        for line in fh:
            name, sep, value = line.strip().partition("=")
            if sep:
                values[name] = value
    return rc, values
