"""The live layer's patches of other libraries' code (python-engineio, Hypercorn, asyncio's
event loop): each measured when it was made (docs/capacity.md), each replacing code those
libraries do not export.
"""
