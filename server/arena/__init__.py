"""The bot arena: bot accounts, challenges, tournaments and ratings."""
