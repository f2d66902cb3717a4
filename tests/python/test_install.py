"""The package installs with pip into a virtual environment, offline, on Debian's packages
(python3-msgpack, python3-zstandard, python3-xxhash seen through --system-site-packages), and the
installed copy, not the source tree, is what a script outside the tree imports."""

import pathlib
import shutil
import subprocess

from conftest import ROOT


def test_pip_install_into_a_venv(tmp_path, vivd):
    # A copy of the sources: pip builds in place, and tests may run side by side.
    src = tmp_path / "src"
    shutil.copytree(ROOT / "clients" / "python", src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "V"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-index", "--no-build-isolation", str(src)],
                   check=True, cwd=tmp_path)
    shutil.rmtree(src)
    script = ("import vivarium, sys\n"
              "with vivarium.connect(sys.argv[1]) as viv:\n"
              "    f = next(viv.frames(viv.worlds()[0]['id'], 1))\n"
              "print(vivarium.__file__, f.width, f.height)\n")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", script, vivd.tcp], check=True, cwd=tmp_path,
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}).stdout.split()
    assert pathlib.Path(out[0]).is_relative_to(venv) and out[1:] == ["200", "150"], out
