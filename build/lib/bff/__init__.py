"""Patient-records portal: the Quart backend-for-frontend."""
