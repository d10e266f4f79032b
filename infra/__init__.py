"""Deployment definitions and the local stack that runs them on moto."""
