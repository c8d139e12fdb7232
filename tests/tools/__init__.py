"""Tests of the development tooling in tools/."""
