"""Invitations and sign-up."""
