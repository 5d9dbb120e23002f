"""Exceptions carrying the command line's messages."""


class OfdmsimError(Exception):
    """A failure of the library: `status` is the command line's exit code
    (2 a config or usage error, 1 a runtime error), str() its message."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


class ConfigError(OfdmsimError, ValueError):
    """A bad config, override, argument or result file (the CLI's exit 2): nothing was written."""


class RuntimeFailure(OfdmsimError, RuntimeError):
    """A backend failed, a file could not be written (the CLI's exit 1)."""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (KeyboardInterrupt): `results` holds the
    finished points (and the partial one), as the files of `output` do."""

    def __init__(self, message, results=None):
        super().__init__(message)
        self.results = results


def raise_for(status, message):
    from . import _lib
    if status == _lib.ERR_CONFIG:
        raise ConfigError(message, status)
    raise RuntimeFailure(message, status)
