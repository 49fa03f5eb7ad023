import { RunsInFlight } from './runs-in-flight';

const run = (id: string): { claimed: { id: string } } => ({ claimed: { id } });

describe('RunsInFlight', () => {
  it('holds runs by identity and answers their ids', () => {
    const runs = new RunsInFlight<ReturnType<typeof run>>();
    const a = run('a');
    const b = run('b');
    // a row delivered again while its first run is still winding down: both runs are held until each ends
    const again = run('a');
    runs.add(a);
    runs.add(b);
    runs.add(again);
    expect(runs.size).toBe(3);
    expect([...runs.keys()]).toEqual(['a', 'b', 'a']);
    runs.delete(a);
    expect([...runs.values()]).toEqual([b, again]);
    runs.delete(a);
    expect(runs.size).toBe(2);
  });
});
