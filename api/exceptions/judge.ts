/** The verdict on one report, counted in the metrics: what both exception routes ask. */
import { ReportInvalid, validateReport, type ReportFields } from '../../shared/exceptions/report';
import { invalidReportText, lost, type Verdict } from '../../shared/exceptions/verdicts';
import type { ApiMetrics } from '../metrics/api-metrics';
import { takeReport, type IntakeDeps } from './intake';

/** A report that fails validation is LOST (EXCEPTION_REPORT_INVALID), not an error. */
export async function judgeReport(
  deps: { readonly exceptions: { readonly intake: IntakeDeps }; readonly metrics: ApiMetrics },
  apiKey: string | undefined,
  fields: ReportFields,
): Promise<Verdict> {
  try {
    return deps.metrics.countException(
      await takeReport(deps.exceptions.intake, apiKey, validateReport(fields)),
    );
  } catch (err) {
    if (err instanceof ReportInvalid) {
      return deps.metrics.countException(
        lost('EXCEPTION_REPORT_INVALID', invalidReportText(err.message)),
      );
    }
    throw err;
  }
}
