"""Malware scanning of every new content by clamd (issue 49): the client (clamd.py), the
verdicts and the quarantine (service.py), the admin's routes."""
