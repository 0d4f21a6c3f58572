"""The VASSAL module back end: buildFile.xml, piece definitions, boards, scenario saves."""
