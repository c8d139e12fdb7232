/** A mutation that marks cached queries stale once it is done, so the screens showing them refetch. */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';

export function useInvalidatingMutation<TData, TVariables>(
  mutationFn: (variables: TVariables) => Promise<TData>,
  keys: readonly QueryKey[],
  /** 'settled': also after a failure, for a change made in steps that may have half happened. */
  after: 'success' | 'settled' = 'success',
) {
  const queryClient = useQueryClient();
  const invalidate = async () => {
    for (const queryKey of keys) await queryClient.invalidateQueries({ queryKey });
  };
  return useMutation({ mutationFn, ...(after === 'settled' ? { onSettled: invalidate } : { onSuccess: invalidate }) });
}
