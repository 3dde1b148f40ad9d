"""The game service: tables, seats, moves, clocks, bot dispatch and the analysis queue."""
