/** Query keys of the responder's emergency view. */
export const emergencyKeys = {
  session: ['emergency', 'session'] as const,
};
