import type { Principal } from '../../kernel/principal.js';
import { dailyChartFigure } from '../../console/charts/chart-figure.js';
import { isoDay, type DailyPoint } from '../../console/charts/daily-series.js';
import type { UsageBucket, UsageRange } from '../usage.js';
import type { UsageService } from '../usage-service.js';
import type { GroupPagePart } from '../../user-groups/pages/group-page-routes.js';

/** A group's usage as its console page shows it: two charts (each with its table) and the totals they add up to. */
export interface GroupUsageCharts {
  /** The first and the last UTC day shown, YYYY-MM-DD. */
  firstDay: string;
  lastDay: string;
  sessions: number;
  renewals: number;
  /** Sessions per day, bars: markup for `<%~ %>` (escaped already). */
  sessionsChart: string;
  /** Distinct viewers per day, a line, so the two charts read apart at a glance. */
  viewersChart: string;
}

/** One count of each day, as the charts take it. */
export function dailyPoints(days: readonly UsageBucket[], count: 'sessions' | 'viewers'): DailyPoint[] {
  return days.map((day) => ({ start: day.start, value: day[count] }));
}

/** The sessions and renewals of the days shown, added up. */
export function dayTotals(days: readonly UsageBucket[]): { sessions: number; renewals: number } {
  return { sessions: days.reduce((sum, day) => sum + day.sessions, 0), renewals: days.reduce((sum, day) => sum + day.renewals, 0) };
}

/** The range's first and last day: `to` is the end of the last day, exclusive. */
export function shownDays(range: UsageRange): { firstDay: string; lastDay: string } {
  return { firstDay: isoDay(range.from), lastDay: isoDay(new Date(Date.parse(range.to) - 1).toISOString()) };
}

/** A group's usage charts on its console page (console/views/group-usage.eta). */
export function groupUsage(usage: UsageService): GroupPagePart {
  return async (principal, userGroupId) => ({ usage: await groupUsageCharts(usage, principal, userGroupId) });
}

/**
 * A group's last 30 UTC days for its console page. A group of another environment, or none, is the
 * service's not_found, as the page's other reads answer.
 */
export async function groupUsageCharts(usage: UsageService, principal: Principal, userGroupId: string): Promise<GroupUsageCharts> {
  const { range, usage: days } = await usage.groupDays(principal, userGroupId);
  return {
    ...shownDays(range),
    ...dayTotals(days),
    sessionsChart: dailyChartFigure({
      id: 'usage-sessions',
      title: 'Sessions per day',
      unit: 'sessions',
      series: dailyPoints(days, 'sessions'),
    }),
    viewersChart: dailyChartFigure({
      id: 'usage-viewers',
      title: 'Distinct viewers per day',
      unit: 'viewers',
      series: dailyPoints(days, 'viewers'),
      shape: 'line',
    }),
  };
}
