"""Admission: what requests and plans are accepted or rejected, with which
ErrorCode and message."""
