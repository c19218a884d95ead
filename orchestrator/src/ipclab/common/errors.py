"""Errors a user can fix: they end the program with one clear line and exit code 2."""


class UserError(Exception):
    """Bad input (file, flag, value): printed as one line, exit 2, no traceback."""

    exit_code = 2
