"""Install this kit into .venv beside it, offline, from its wheels/ folder alone.

    python3 install.py            # macOS, Linux
    py install.py                 # Windows
    python3 install.py --fresh    # start again from an empty .venv

It makes a virtual environment with Python's own venv module, installs attnbook, JupyterLab
and nbgrader's student tools from wheels/ without the network and without your pip settings,
and turns off nbgrader's instructor panels (formgrader, course list, Create Assignment) in
that environment's JupyterLab. Validate and the Assignments list stay.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import venv
from pathlib import Path

KIT = Path(__file__).resolve().parent
VENV = KIT / ".venv"


def manifest() -> dict:
    return json.loads((KIT / "kit.json").read_text(encoding="utf-8"))


def this_interpreter() -> dict:
    return {
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "system": platform.system(),
        "machine": platform.machine(),
    }


def check_interpreter(built_for: dict, here: dict | None = None) -> None:
    """Stop with a clear message when the wheels cannot install on this Python (`here`,
    default this interpreter)."""
    here = {
        key: str(value).lower() if key == "machine" else str(value)
        for key, value in (here or this_interpreter()).items()
    }
    kit = {
        key: str(built_for[key]).lower() if key == "machine" else str(built_for[key])
        for key in here
    }
    wrong = [f"{key}: here {here[key]}, kit {kit[key]}" for key in here if here[key] != kit[key]]
    if wrong:
        raise SystemExit(
            f"This kit's wheels are for Python {kit['python']} on {kit['system']} "
            f"{kit['machine']} ({'; '.join(wrong)}).\nRun it with that Python (for example "
            f"`py -{kit['python']} install.py` on Windows, `python{kit['python']} install.py` "
            "elsewhere) or ask your instructor for the kit built for your computer."
        )


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def make_venv(fresh: bool) -> Path:
    try:
        venv.EnvBuilder(with_pip=True, clear=fresh).create(VENV)
    except (OSError, subprocess.CalledProcessError) as err:
        raise SystemExit(
            f"could not create {VENV}: {err}\nOn Debian or Ubuntu install "
            "python3-venv first (sudo apt install python3-venv)."
        ) from None
    return venv_python()


def pip_install(python: Path, *requirements: str) -> None:
    """pip install from wheels/ only: no index, no pip.conf, no PIP_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    command = [
        str(python),
        "-m",
        "pip",
        "--isolated",
        "--disable-pip-version-check",
        "install",
        "--no-index",
        "--find-links",
        str(KIT / "wheels"),
        *requirements,
    ]
    if subprocess.run(command, env=env).returncode != 0:
        raise SystemExit(f"pip could not install {' '.join(requirements)} from {KIT / 'wheels'}")


def configure_lab() -> None:
    """The kit's JupyterLab settings (jupyter/) into the environment's etc/jupyter/."""
    shutil.copytree(KIT / "jupyter", VENV / "etc" / "jupyter", dirs_exist_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh", action="store_true", help="empty .venv first")
    args = parser.parse_args(argv)
    kit = manifest()
    check_interpreter(kit["built_for"])
    python = make_venv(args.fresh)
    pip_install(python, "--upgrade", "pip")
    pip_install(python, kit["requirement"])
    configure_lab()
    scripts = ".venv\\Scripts\\" if os.name == "nt" else ".venv/bin/"
    print(
        f"\nattnbook kit {kit['version']} is installed in {VENV}.\n"
        f"Open the lab with:  {scripts}jupyter lab notebooks"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
