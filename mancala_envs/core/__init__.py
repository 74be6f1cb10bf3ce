"""Shared machinery: the kernel contract, options, errors."""
