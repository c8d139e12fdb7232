"""`python -m bff`: the command line (bff/cli.py)."""

from config.filemodes import private_files

private_files()  # before anything is written: owner-only files (config/filemodes.py)

from bff.cli import cli  # noqa: E402
from config.logs import configure_command_logging  # noqa: E402

if __name__ == "__main__":
    configure_command_logging()
    cli(prog_name="python -m bff")
