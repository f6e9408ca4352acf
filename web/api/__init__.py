"""The REST API of the submissions and problems, with what the leaderboard shows of them."""
