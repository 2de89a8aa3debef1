"""Playing a person: strength levels, the game session, the opponent at the table."""
