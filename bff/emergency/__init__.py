"""Emergency access: verifying a SmartToken link and the responder's short-lived grant."""
