"""A Python game module raising SystemExit as it is imported (status 0, as `sys.exit()`)."""

raise SystemExit


class Game:
    """Never reached."""
