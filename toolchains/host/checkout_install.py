"""Installs a checkout into an environment's site-packages without building
anything (`make build` runs it; the native core is built in place by its own
step): a .pth file that puts the checkout on the path, and the package's
metadata as an editable install (PEP 610), so that importlib.metadata and
pip see simakernels.

The metadata is what setup.py declares (its version from
simakernels/_version.py), written by setuptools' dist_info command, which
reads setup.py without compiling; INSTALLER, direct_url.json and RECORD
complete it, and RECORD lists the .pth too, so that `pip uninstall
simakernels` removes both.

Usage: checkout_install.py CHECKOUT [--site DIR]
(DIR: the running interpreter's site-packages by default).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import pathlib
import shutil
import site
import subprocess
import sys
import tempfile

PTH = "simakernels-checkout.pth"
# Marks the dist-info this script wrote: a later run replaces it (the
# version may have changed), and leaves anything pip installed alone.
INSTALLER = "simakernels-checkout"


def _record_line(path: pathlib.Path, root: pathlib.Path) -> str:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path.relative_to(root).as_posix()},sha256={digest},{len(data)}"


def _remove_earlier(site_dir: pathlib.Path) -> None:
    for info in site_dir.glob("simakernels-*.dist-info"):
        marker = info / "INSTALLER"
        if marker.is_file() and marker.read_text().strip() == INSTALLER:
            shutil.rmtree(info)


def _metadata(checkout: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """setup.py's dist-info, written under ``into``; its path."""
    subprocess.run([sys.executable, "setup.py", "-q", "dist_info", "--output-dir", str(into)],
                   cwd=checkout, check=True)
    (info,) = into.glob("simakernels-*.dist-info")
    return info


def install(checkout: pathlib.Path, site_dir: pathlib.Path) -> pathlib.Path:
    """The .pth and the dist-info in ``site_dir``; the dist-info's path."""
    checkout = checkout.resolve()
    site_dir.mkdir(parents=True, exist_ok=True)
    _remove_earlier(site_dir)
    pth = site_dir / PTH
    pth.write_text(f"{checkout}\n")
    with tempfile.TemporaryDirectory() as tmp:
        info = site_dir / _metadata(checkout, pathlib.Path(tmp)).name
        shutil.rmtree(info, ignore_errors=True)
        shutil.move(str(pathlib.Path(tmp) / info.name), info)
    (info / "INSTALLER").write_text(INSTALLER + "\n")
    (info / "direct_url.json").write_text(json.dumps({"url": checkout.as_uri(), "dir_info": {"editable": True}}))
    record = info / "RECORD"
    lines = [_record_line(p, site_dir) for p in sorted(info.iterdir()) if p.is_file()]
    lines += [_record_line(pth, site_dir), f"{record.relative_to(site_dir).as_posix()},,"]
    record.write_text("\n".join(lines) + "\n")
    return info


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=pathlib.Path)
    parser.add_argument("--site", type=pathlib.Path, default=pathlib.Path(site.getsitepackages()[0]))
    args = parser.parse_args()
    info = install(args.checkout, args.site)
    print(f"{info.name} and {PTH} in {args.site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
