"""The four-player partnership tables of the game service (docs/protocol-four.md).

``table.py`` a table's state and what each seat sees; ``playing.py`` its deal (a card checked,
stored, told; a leaver's seat taken by a bot); ``room.py`` its commands and clock; ``lobby.py``
opening and joining one; ``restore.py`` one rebuilt from the store. The rooms share this process's
registry, seats, bots, clock and store with the two-player rooms (``server.game.rooms``).
"""
