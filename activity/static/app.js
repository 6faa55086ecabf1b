// Placeholder: the built page (activity/web, npm run build) replaces this file.
