"""The meaning benchmark's yardstick: its query sets hold what they claim, its real encoder
knows meaning across languages, and keyword search still finds the keyword set."""
