"""The EV74 conformance kit's bytes are the same on every machine and
route: the quick kit's manifest (which records every file's sha256) hashes
to the digest recorded in tests/data.  Not host-only: the suite also runs
this on AArch64 under QEMU, from the installed wheel, so x86-64 and the
DevKit build must write byte-identical kits, and the device model of each
(its arithmetic on the best route there) must pass every case."""
import hashlib
import pathlib

import pytest

from simakernels.ev74 import vectors
from support.ev74_kit import run_on_device

DIGESTS = pathlib.Path(__file__).resolve().parents[1] / "data" / "ev74_vectors.sha256"
LIMITS = {"quick": 1_000_000, "full": 50_000_000}


def recorded(kind):
    lines = [line.split() for line in DIGESTS.read_text().splitlines() if line and not line.startswith("#")]
    return {name: digest for digest, name in lines}[kind]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("quick-kit")
    return out, vectors.write(out, quick=True)


@pytest.mark.parametrize("kind", ["quick", "full"])
def test_the_kit_is_the_same_bytes_on_every_machine_and_within_its_size(kind, quick, tmp_path):
    """The manifest records every file's sha256; its own digest is recorded
    in tests/data, so x86-64 and AArch64 (the suite runs under QEMU) must
    write the same bytes.  A deliberate change of the case list updates the
    digests and bumps vectors.VERSION."""
    kit, manifest = quick if kind == "quick" else (tmp_path, vectors.write(tmp_path))
    assert manifest["seed"] == vectors.SEED and manifest["version"] == vectors.VERSION
    digest = hashlib.sha256((kit / "manifest.json").read_bytes()).hexdigest()
    assert digest == recorded(kind), (
        f"the {kind} kit's manifest hashes to {digest}; if the case list or the generator changed on purpose, "
        f"bump vectors.VERSION and record the new digest in {DIGESTS}")
    assert vectors.read(kit) == manifest  # every file as the manifest records it
    assert sum(f.stat().st_size for f in kit.iterdir()) < LIMITS[kind]


def test_the_device_model_passes_every_quick_case(quick, tmp_path):
    kit, manifest = quick
    run_on_device(kit, manifest, tmp_path)
    checked, failures = vectors.check(kit, tmp_path)
    assert checked == len(manifest["cases"]) and not failures, failures[:3]
