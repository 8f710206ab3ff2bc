"""Package metadata: the imported package has it (the checkout install of
`make build` as well as a wheel), the checkout install writes a complete
editable dist-info, and Requires-Python claims the Pythons the wheel is
tested on, no fewer and no older."""
import base64
import hashlib
import importlib.metadata
import json
import pathlib
import re
import subprocess
import sys

import pytest
from packaging.specifiers import SpecifierSet

import simakernels as sk

REPO = pathlib.Path(__file__).resolve().parents[2]
INSTALLER_SCRIPT = REPO / "toolchains" / "host" / "checkout_install.py"


def declared_version(package_dir):
    """The version simakernels/_version.py declares (its one place)."""
    text = (pathlib.Path(package_dir) / "_version.py").read_text()
    return re.search(r'^__version__ = "(.+)"$', text, re.M).group(1)


def test_the_imported_package_has_metadata():
    try:
        version = importlib.metadata.version("simakernels")
    except importlib.metadata.PackageNotFoundError:
        pytest.fail("no metadata for simakernels: `make build` installs the checkout's (or install a wheel)")
    assert version == declared_version(pathlib.Path(sk.__file__).parent)


def classified_pythons(metadata):
    found = [re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c) for c in metadata.get_all("Classifier")]
    return sorted(int(m.group(1)) for m in found if m)


def test_requires_python_is_the_pythons_the_wheel_is_tested_on():
    """setup.py's PYTHONS, which make test-pythons reads back from the
    classifiers: Requires-Python admits the oldest and everything newer
    (one abi3 wheel), and nothing older."""
    metadata = importlib.metadata.metadata("simakernels")
    minors = classified_pythons(metadata)
    assert minors and minors == list(range(minors[0], minors[-1] + 1)), minors
    claim = metadata["Requires-Python"]
    assert claim, "no Requires-Python"
    spec = SpecifierSet(claim)
    for minor in range(0, 30):
        for patch in (0, 11):
            admitted = spec.contains(f"3.{minor}.{patch}")
            assert admitted == (minor >= minors[0]), f"Requires-Python {claim!r} on 3.{minor}.{patch}"


def _sha256_field(path):
    digest = base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def _install(site_dir):
    if not (REPO / "setup.py").is_file():
        pytest.skip("needs the checkout (a copied suite has no setup.py)")
    result = subprocess.run([sys.executable, str(INSTALLER_SCRIPT), str(REPO), "--site", str(site_dir)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_checkout_install_writes_an_editable_dist_info(tmp_path):
    version = declared_version(REPO / "simakernels")
    # Left by an earlier run at another version (replaced), and by pip (kept).
    ours_before = tmp_path / "simakernels-0.0.1.dist-info"
    ours_before.mkdir()
    (ours_before / "INSTALLER").write_text("simakernels-checkout\n")
    (ours_before / "METADATA").write_text("Metadata-Version: 2.1\nName: simakernels\nVersion: 0.0.1\n")
    foreign = tmp_path / "other-1.0.dist-info"
    foreign.mkdir()
    (foreign / "INSTALLER").write_text("pip\n")
    (foreign / "METADATA").write_text("Metadata-Version: 2.1\nName: other\nVersion: 1.0\n")
    _install(tmp_path)
    _install(tmp_path)  # again: still one dist-info
    assert not ours_before.exists() and foreign.is_dir()
    dists = [d for d in importlib.metadata.distributions(path=[str(tmp_path)]) if d.metadata["Name"] == "simakernels"]
    assert len(dists) == 1
    dist = dists[0]
    assert dist.version == version
    assert dist.read_text("INSTALLER") == "simakernels-checkout\n"
    assert json.loads(dist.read_text("direct_url.json")) == {"url": REPO.as_uri(), "dir_info": {"editable": True}}
    assert sorted(r for r in dist.requires if ";" not in r) == ["cffi>=2.0", "ml_dtypes>=0.5", "numpy>=2.0"]
    assert (tmp_path / "simakernels-checkout.pth").read_text() == f"{REPO}\n"
    # RECORD: every file of the install with its hash and size; itself without.
    info = tmp_path / f"simakernels-{version}.dist-info"
    rows = [line.split(",") for line in (info / "RECORD").read_text().splitlines()]
    recorded = {path: (digest, size) for path, digest, size in rows}
    on_disk = {p.relative_to(tmp_path).as_posix() for p in info.iterdir()} | {"simakernels-checkout.pth"}
    assert set(recorded) == on_disk
    for path, (digest, size) in recorded.items():
        if path.endswith("/RECORD"):
            assert (digest, size) == ("", "")
        else:
            assert (digest, int(size)) == (_sha256_field(tmp_path / path), (tmp_path / path).stat().st_size), path
