"""SmartTokens: the device registry, its lifecycle and the signed verification links."""
