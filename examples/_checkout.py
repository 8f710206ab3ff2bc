"""Lets the examples run from a built source checkout without an install
(``.venv/bin/python examples/<name>.py``): when simakernels is not importable,
the package one directory up is put on the path.  An installed package wins."""
import importlib.util
import os
import sys

if importlib.util.find_spec("simakernels") is None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
