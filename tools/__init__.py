"""Development and test tooling: servers in child processes, a local cluster, scale seeding.

Not part of the product: the wheel holds bff, storage and config only.
"""
