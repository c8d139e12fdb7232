"""`python -m bff`: the command line (bff/cli.py)."""

from bff.cli import cli

if __name__ == "__main__":
    cli(prog_name="python -m bff")
