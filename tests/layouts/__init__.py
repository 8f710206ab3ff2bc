"""Traversal: strided, permuted, staged and transposed layouts,
every-other-element and dense leaves, each route's staging."""
