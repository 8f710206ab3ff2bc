"""Test support shared by the suite: the helpers (oracle expectations, case
runners, layouts), the EV74 and Hurray helpers, the guard-page harness and
its cases.  Imported as ``from support.helpers import ...`` (tests/ is on
sys.path: tests/conftest.py)."""
