"""Finding and running the ascend-sim binary.

Every simulation runs in a process of its own: SystemC elaborates a design once per process, so
an in-process binding (pybind11) could run one simulation per Python session at most.
"""

import os
import shutil
import subprocess
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_BINARY = "ascend-sim"


class SimError(Exception):
    """ascend-sim refused the input (exit_code 2) or the simulation failed (exit_code 1).

    ``message`` is the CLI's own one-line message, without the ``ascend-sim: error:`` prefix;
    ``stderr`` is everything the process wrote to stderr; ``command`` is its argument list.
    """

    def __init__(self, exit_code, message, stderr="", command=None):
        super().__init__(message)
        self.exit_code = exit_code
        self.message = message
        self.stderr = stderr
        self.command = list(command) if command else []

    def __str__(self):
        return f"{self.message} (ascend-sim exit code {self.exit_code})"


def find_binary():
    """The ascend-sim binary: $ASCEND_SIM, else one next to this package, else one on PATH."""
    env = os.environ.get("ASCEND_SIM")
    if env:
        path = Path(env)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise FileNotFoundError(f"ASCEND_SIM={env} is not an executable file")
        return str(path)
    for candidate in (_PACKAGE_DIR / _BINARY, _PACKAGE_DIR / "bin" / _BINARY, _PACKAGE_DIR.parent / _BINARY):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(_BINARY)
    if found:
        return found
    raise FileNotFoundError(
        "ascend-sim binary not found: set ASCEND_SIM to its path, put it next to the ascend_sim "
        f"package ({_PACKAGE_DIR}) or on PATH"
    )


def _message(stderr):
    """The CLI's error message: its last line that starts with 'ascend-sim: error: '."""
    prefix = "ascend-sim: error: "
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(prefix):
            return line[len(prefix):]
    return lines[-1] if lines else "ascend-sim failed without a message"


def call(args, cwd=None):
    """Runs ``ascend-sim ARGS``; returns its stdout, raises SimError on a non-zero exit."""
    command = [find_binary()] + [str(a) for a in args]
    env = dict(os.environ)
    env.setdefault("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")
    proc = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        code = proc.returncode if proc.returncode > 0 else 1
        raise SimError(code, _message(proc.stderr), proc.stderr, command)
    return proc.stdout


def set_args(overrides):
    """``{"die.l2.size": "128MiB"}`` or ``["die.l2.size=128MiB"]`` -> ``--set`` arguments."""
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        items = [f"{k}={v}" for k, v in overrides.items()]
    elif isinstance(overrides, (list, tuple)):
        items = list(overrides)
    else:
        items = [overrides]  # anything else goes to the CLI as it is, which says what is wrong
    args = []
    for item in items:
        args += ["--set", str(item)]
    return args


def option_args(options):
    """Keyword options -> CLI options: ``kv_len=64`` -> ``--kv-len 64``; True -> a bare flag;
    False and None -> nothing; a list or tuple -> the option repeated."""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, str(v)]
        else:
            args += [flag, str(value)]
    return args
