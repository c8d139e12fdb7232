"""Durable background work per file version (text extraction, previews): bff/jobs/service.py."""
