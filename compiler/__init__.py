"""countermix: compile board-wargame data into VASSAL modules, print sheets and charts."""

__version__ = "0.1.0"
