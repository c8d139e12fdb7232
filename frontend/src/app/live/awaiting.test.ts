/** The first connection's refetch of what awaits a live event that may have come before it. */
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { refetchAwaiting } from './awaiting';

type Listing = { pending: boolean };

/** A query on screen (observed) whose answers are given by the test, one per fetch. */
function arrange(key: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const answers: Array<(value: Listing) => void> = [];
  const observer = new QueryObserver(client, {
    queryKey: [key],
    queryFn: () => new Promise<Listing>((resolve) => answers.push(resolve)),
    staleTime: Infinity,
    meta: { awaitsLive: (data) => (data as Listing).pending },
  });
  const unsubscribe = observer.subscribe(() => undefined);
  const answer = async (value: Listing) => {
    answers.at(-1)?.(value);
    await vi.waitFor(() => expect(client.getQueryData([key])).toEqual(value));
  };
  return { client, answers, answer, unsubscribe };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('refetchAwaiting', () => {
  it('fetches again what awaits an event when the first connection is up', async () => {
    const { client, answers, answer, unsubscribe } = arrange('files');
    await answer({ pending: true });
    refetchAwaiting(client);
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    await answer({ pending: true });
    await settle();
    expect(answers).toHaveLength(2); // once: the events from now on are received
    unsubscribe();
  });

  it('leaves alone what awaits nothing', async () => {
    const { client, answers, answer, unsubscribe } = arrange('files');
    await answer({ pending: false });
    refetchAwaiting(client);
    await settle();
    expect(answers).toHaveLength(1);
    unsubscribe();
  });

  it('fetches again, once its answer arrives, what was being fetched at the connection', async () => {
    const { client, answers, answer, unsubscribe } = arrange('files');
    const stop = refetchAwaiting(client);
    expect(answers).toHaveLength(1); // not cancelled, not asked twice at once
    await answer({ pending: true });
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    await answer({ pending: false });
    await settle();
    expect(answers).toHaveLength(2);
    stop();
    unsubscribe();
  });

  it('does not fetch again an answer, arriving after the connection, that awaits nothing', async () => {
    const { client, answers, answer, unsubscribe } = arrange('files');
    refetchAwaiting(client);
    await answer({ pending: false });
    await settle();
    expect(answers).toHaveLength(1);
    unsubscribe();
  });

  it('ignores queries that never await events', async () => {
    const client = new QueryClient();
    const queryFn = vi.fn(() => Promise.resolve({ pending: true }));
    await client.fetchQuery({ queryKey: ['other'], queryFn });
    refetchAwaiting(client);
    await settle();
    expect(queryFn).toHaveBeenCalledTimes(1);
  });
});
