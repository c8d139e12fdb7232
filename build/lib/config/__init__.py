"""Settings loading and server configuration for the patient-records BFF."""
